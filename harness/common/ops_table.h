/*
 * ops_table.h - the entries of one group's table from ops.def (benches.c).
 * Define exactly one of BV_TABLE_UNARY, _BINARY, _REDUCE, _ROWS, _MATMUL,
 * _NORM, _MEMORY, _QUANT, _CONV, _POOL, _MODEL (batchnorm comes with _NORM,
 * concat with _MEMORY)
 * and the OP_* entry macros, then include this inside the array: the
 * group's lines expand to entries, every other line to nothing.  Binary
 * takes axpy too (it is in the binary group).
 */
#define BV_NONE_(...)
#ifdef BV_TABLE_UNARY
#define BV_UNARY OP_UNARY
#else
#define BV_UNARY BV_NONE_
#endif
#ifdef BV_TABLE_BINARY
#define BV_BINARY OP_BINARY
#define BV_AXPY OP_AXPY
#else
#define BV_BINARY BV_NONE_
#define BV_AXPY BV_NONE_
#endif
#ifdef BV_TABLE_REDUCE
#define BV_REDUCE OP_REDUCE
#else
#define BV_REDUCE BV_NONE_
#endif
#ifdef BV_TABLE_ROWS
#define BV_ROWS OP_ROWS
#else
#define BV_ROWS BV_NONE_
#endif
#ifdef BV_TABLE_MATMUL
#define BV_MATMUL OP_MATMUL
#else
#define BV_MATMUL BV_NONE_
#endif
#ifdef BV_TABLE_NORM
#define BV_NORM OP_NORM
#define BV_BATCHNORM OP_BATCHNORM
#else
#define BV_NORM BV_NONE_
#define BV_BATCHNORM BV_NONE_
#endif
#ifdef BV_TABLE_MEMORY
#define BV_MEMORY OP_MEMORY
#define BV_CONCAT OP_CONCAT
#else
#define BV_MEMORY BV_NONE_
#define BV_CONCAT BV_NONE_
#endif
#ifdef BV_TABLE_QUANT
#define BV_QUANT OP_QUANT
#else
#define BV_QUANT BV_NONE_
#endif
#ifdef BV_TABLE_CONV
#define BV_CONV OP_CONV
#else
#define BV_CONV BV_NONE_
#endif
#ifdef BV_TABLE_POOL
#define BV_POOL OP_CONV
#else
#define BV_POOL BV_NONE_
#endif
#ifdef BV_TABLE_MODEL
#define BV_MODEL OP_MODEL
#else
#define BV_MODEL BV_NONE_
#endif
#include "ops.def"
#undef BV_UNARY
#undef BV_BINARY
#undef BV_AXPY
#undef BV_REDUCE
#undef BV_ROWS
#undef BV_MATMUL
#undef BV_NORM
#undef BV_MEMORY
#undef BV_QUANT
#undef BV_CONV
#undef BV_POOL
#undef BV_BATCHNORM
#undef BV_CONCAT
#undef BV_MODEL
#undef BV_NONE_
#undef BV_TABLE_UNARY
#undef BV_TABLE_BINARY
#undef BV_TABLE_REDUCE
#undef BV_TABLE_ROWS
#undef BV_TABLE_MATMUL
#undef BV_TABLE_NORM
#undef BV_TABLE_MEMORY
#undef BV_TABLE_QUANT
#undef BV_TABLE_CONV
#undef BV_TABLE_POOL
#undef BV_TABLE_MODEL
