// SPDX-License-Identifier: MIT OR Apache-2.0
/* Compiles the public header as strict C99. */
#include "gpuprover.h"

int gp_header_c99_check(void) { return (int)GP_OK + (int)GP_VERSION_NUMBER * 0; }
