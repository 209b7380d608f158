// The x87 escape opcodes D8-DF and WAIT (9B) as one family of table rows (Intel SDM
// Vol. 2, Appendix A "Escape Opcode Instructions"): the rows of each cpu/x87/exec_*.cpp
// file, joined. Register forms named by the whole ModRM byte (D9 E0 FCHS) carry their
// ModRM.rm in the row. Reserved encodings have no row and raise #UD.
// DEVIATION: a reserved escape encoding raises #UD even with CR0.EM or CR0.TS set,
// where a P6 raises #NM first (SDM "Architecture Compatibility", FPU opcodes).
#include <vector>

#include "cpu/x87/exec_families.h"

namespace x86lab {

FormList x87_forms() {
  static const std::vector<InstructionForm> rows = [] {
    std::vector<InstructionForm> all;
    for (FormList family : {x87::transfer_forms(), x87::arithmetic_forms(), x87::compare_forms(),
                            x87::control_forms(), x87::transcendental_forms()}) {
      all.insert(all.end(), family.begin(), family.end());
    }
    return all;
  }();
  return rows;
}

}  // namespace x86lab
