// Programs from the user's files, for the code subtasks of the paper suite.
//
// MBPP-style JSON (Easy; the shape of StructTest's mbpp-sanitized data): a JSON list of
// objects, each with
//   "task_id"       number or string
//   "code"          the function's source
//   "input_output"  {"fn_name": str, "inputs": [str], "outputs": [str]}: each input the
//                   argument list as Python text without brackets ("\"hello\",\"l\""),
//                   each output the expected return value as a Python literal
//   "var_mapping"   optional list of "old:new" (replace_variables)
// APPS-style JSON (Hard; our own shape): a JSON list of objects, each with
//   "source_code" (or "solution")  a program that reads stdin and prints
//   "inputs"        list of stdin texts (at least one)
//   "outputs"       list of the expected stdout texts, one per input
//   "id"            optional number or string (default: the index)
//   "var_mapping"   optional list of "old:new"
// Errors name the file, the record index and the field:
//   "apps.json: record 3: field 'inputs' missing"
#ifndef STRUCTTEST_SOURCES_PROGRAM_LOADER_H_
#define STRUCTTEST_SOURCES_PROGRAM_LOADER_H_

#include <string>
#include <vector>

#include "sources/program.h"
#include "structtest/status.h"

namespace structtest {

StatusOr<std::vector<Program>> LoadMbpp(const std::string& path);
StatusOr<std::vector<Program>> LoadApps(const std::string& path);

}  // namespace structtest

#endif  // STRUCTTEST_SOURCES_PROGRAM_LOADER_H_
