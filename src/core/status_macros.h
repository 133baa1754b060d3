// The short names structtest's own code uses for the public status macros
// (structtest/status.h prefixes them, so that programs built on the API keep their own
// RETURN_IF_ERROR). The CLI, the Python module and the examples use the public names.
#ifndef STRUCTTEST_CORE_STATUS_MACROS_H_
#define STRUCTTEST_CORE_STATUS_MACROS_H_

#include "structtest/status.h"

#define RETURN_IF_ERROR(expr) STRUCTTEST_RETURN_IF_ERROR(expr)
#define ASSIGN_OR_RETURN(lhs, expr) STRUCTTEST_ASSIGN_OR_RETURN(lhs, expr)

#endif  // STRUCTTEST_CORE_STATUS_MACROS_H_
