#pragma once
// What `jitctl check-trace` prints: a text report for people (the verdict, each input set, the
// graph diff as a unified diff with source lines, outputs that differ, the tracer's warnings),
// JSON for scripts, and JUnit XML for CI servers (one test case per input set).
#include <string>

#include "lib/check/check_trace.h"

namespace jitctl {

std::string check_trace_text(const CheckTraceReport& r);
std::string check_trace_json(const CheckTraceReport& r);
std::string check_trace_junit(const CheckTraceReport& r);

}  // namespace jitctl
