/* machine.h - the machine block of a results log. */
#ifndef BV_MACHINE_H
#define BV_MACHINE_H
#include <cjson/cJSON.h>
cJSON *bv_machine_info(void);
#endif
