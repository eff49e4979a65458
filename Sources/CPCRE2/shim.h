// The 8-bit (UTF-8) library of PCRE2. The width must be fixed before the
// header is read; Swift then calls the `_8`-suffixed functions directly
// because the unsuffixed names are function-like macros it cannot import.
#ifndef CPCRE2_SHIM_H
#define CPCRE2_SHIM_H
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#endif
