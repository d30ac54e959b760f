// libFuzzer target: serialized HloModuleProto/HloProto bytes -> IR -> verify -> text and
// back to proto. Must never crash, hang, leak or trip a sanitizer, whatever the input.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "hlo/hlo_printer.h"
#include "hlo/hlo_proto_convert.h"
#include "hlo/hlo_verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto module = xla::HloModuleFromSerializedProto(bytes);
  if (!module.ok()) return 0;
  xla::HloModuleProto proto = xla::HloModuleToProto(**module);
  (void)proto;
  if (!xla::VerifyHloModule(**module).ok()) return 0;
  std::string printed = xla::HloModuleToString(**module);
  (void)printed;
  return 0;
}
