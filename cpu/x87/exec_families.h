// The x87 instruction families (D8-DF and 9B): each exec_*.cpp file of cpu/x87/ holds
// its executors beside its table rows; x87_forms() in x87_forms.cpp joins the rows.
#pragma once
#include "cpu/instruction_table.h"
#include "cpu/x87/fpu.h"

namespace x86lab::x87 {

FormList transfer_forms();        // exec_transfer.cpp: FLD FST FILD FIST FBLD FBSTP FXCH FCMOVcc constants
FormList arithmetic_forms();      // exec_arithmetic.cpp: FADD FSUB FMUL FDIV FSQRT FPREM FSCALE ...
FormList compare_forms();         // exec_compare.cpp: FCOM FUCOM FICOM FCOMI FTST FXAM
FormList control_forms();         // exec_control.cpp: FNINIT FLDCW FNSTENV FNSAVE FWAIT ...
FormList transcendental_forms();  // exec_transcendental.cpp: FSIN FCOS FPTAN FPATAN F2XM1 FYL2X ...

}  // namespace x86lab::x87
