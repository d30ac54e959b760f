// libFuzzer target: HLO text -> parse -> verify -> print -> re-parse. Must never crash,
// hang, leak or trip a sanitizer, whatever the input.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "hlo/hlo_parser.h"
#include "hlo/hlo_printer.h"
#include "hlo/hlo_verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = xla::ParseAndReturnUnverifiedModule(text);
  if (!module.ok()) return 0;
  if (!xla::VerifyHloModule(**module).ok()) return 0;
  std::string printed = xla::HloModuleToString(**module);
  auto reparsed = xla::ParseAndReturnUnverifiedModule(printed);
  (void)reparsed;
  return 0;
}
