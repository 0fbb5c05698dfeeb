#ifndef CONFAB_CSODIUM_SHIM_H
#define CONFAB_CSODIUM_SHIM_H
#include <sodium.h>
#endif
