// A Python program the code subtasks are built on: an Easy function (called with
// arguments, MBPP style) or a Hard program (reads stdin, prints to stdout, APPS
// style), with inputs and the outputs they give. Built-in programs come from
// program_generator.h, the user's from program_loader.h.
#ifndef STRUCTTEST_SOURCES_PROGRAM_H_
#define STRUCTTEST_SOURCES_PROGRAM_H_

#include <cstddef>
#include <string>
#include <vector>

namespace structtest {

// program_store.cc writes every field to its file: a new field must be added there.
struct Program {
  std::string id;       // unique within its source, e.g. "fn-0007" or "mbpp-11"
  std::string task_id;  // the task it came from (the MBPP task id); may equal id
  std::string source;   // the Python code
  // The function to call (Easy); empty for a program that reads stdin (Hard).
  std::string fn_name;
  // Function: the argument list as Python text without brackets ("[1, 2], 3").
  // Stdin: the whole standard input.
  std::vector<std::string> inputs;
  // outputs[i] is what inputs[i] gives: the repr of the return value (a Python
  // literal) or the printed text. Same size as inputs.
  std::vector<std::string> outputs;
  // Call-based: exact_outputs[i] is '1' when outputs[i] is the returned value itself
  // (its repr reads back as a literal of the same types, the same repr); '0' when not;
  // empty when unknown (programs the generator did not run).
  std::string exact_outputs;
  // inputs[0..test_inputs) are the task's own tests, the ones simulate_execute asks
  // about; 0: all of them.
  size_t test_inputs = 0;
  // "old:new" renamings for replace_variables; empty: derived when the code family
  // prepares its sources.
  std::vector<std::string> var_mapping;
  // The source with a print of the assigned variables after each assignment, as the
  // add_print_statements checker expects it. Filled when the code family prepares its
  // sources (it needs Python's ast); empty before.
  std::string printed_source;
  // The source with var_mapping applied the way the replace_variables checker applies
  // it. Filled when the code family prepares its sources.
  std::string renamed_source;

  bool call_based() const { return !fn_name.empty(); }
  // The number of the task's own tests: inputs[0..test_count()).
  size_t test_count() const {
    return test_inputs == 0 || test_inputs > inputs.size() ? inputs.size() : test_inputs;
  }
};

}  // namespace structtest

#endif  // STRUCTTEST_SOURCES_PROGRAM_H_
