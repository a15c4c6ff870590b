/// @file label_command.h
/// `antidriftd label FILE --next TEXT …` (issue 16 item 1): the windows of a
/// recorded day listed for a person to label, the labels file that
/// `antidriftd replay --labels` scores against.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace antidrift {

/// Runs `antidriftd label` with `args` (the words after "label"):
///
///     FILE --next TEXT [--done TEXT] [--allowed APP,APP…]
///
/// FILE is an ActivityWatch export or a JSONL of observations
/// (replay::loadActivity). Writes the labels template (replay::labelsTemplate
/// over replay::windowsToLabel with the built-in settings; docs/API.md
/// "Labelling a day") to `out`, the usage (`--help`) to `out`, and problems to
/// `err`. Returns 0; 2 for a usage error (no FILE, no --next, unknown option,
/// missing value); 1 when FILE is missing or malformed. Never throws (bar
/// std::bad_alloc). Not thread-safe (one per process).
int runLabelCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace antidrift
