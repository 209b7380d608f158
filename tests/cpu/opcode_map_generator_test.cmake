# The opcode map generator (cpu/generate_forms.cmake) on small maps: the rows it expands
# (+cc in the SDM's condition order, +r, 0F, an x87 ModRM byte, each executor kind) and
# the malformed lines it rejects with one message naming the map and the line.
#   cmake -DGENERATOR=<generate_forms.cmake> -DWORK=<scratch dir> -P opcode_map_generator_test.cmake
cmake_minimum_required(VERSION 3.25)

function(fail text)
  message(SEND_ERROR "${text}")
endfunction()

# Runs the generator on MAP_TEXT with the families "one,two"; sets rc, err and out_dir.
function(generate case map_text)
  set(dir "${WORK}/${case}")
  file(REMOVE_RECURSE "${dir}")
  file(WRITE "${dir}/map.tsv" "${map_text}")
  execute_process(COMMAND ${CMAKE_COMMAND} -DMAP=${dir}/map.tsv -DOUT=${dir}/out -DFAMILIES=one,two
                          -P ${GENERATOR}
                  RESULT_VARIABLE result ERROR_VARIABLE error OUTPUT_QUIET)
  set(rc "${result}" PARENT_SCOPE)
  set(err "${error}" PARENT_SCOPE)
  set(map "${dir}/map.tsv" PARENT_SCOPE)
  set(out_dir "${dir}/out" PARENT_SCOPE)
endfunction()

# --- rows it expands -------------------------------------------------------------
string(CONCAT good "# a comment with the characters CMake lists treat specially: [E]SI; a\\b\n\n"
  "one\t70+cc\t-\tJcc\tJb\t-\tjcc\tV\t-\tkCall\t# trailing comment\n"
  "one\t0F C8+r\t-\tBSWAP\tZv\t-\tbswap\tV\t-\t-\n"
  "one\t\t80\t\t/7\tCMP\t\tEb,Ib\t\tw:OSZAPC\tcmp\tB\t-\t-\n"
  "one\t0F 18\t/4\tNOP\tEv\t-\tnop\tN\t-\tkLockable|kMemoryOnly\n"
  "one\t0F 01\t/2\tLGDT\tMs\t-\tlgdt\tV\t-\tkMemoryOnly|kPrivileged\n"
  "two\tD9 E0\t-\tFCHS\t-\t-\tsign_operation\tX\ttrue\tkRegisterOnly\n"
  "two\tDD\t/6\tFNSAVE\tM\t-\tfnsave\tXNV\t-\tkMemoryOnly\n"
  "one\tF6\t/6\tDIV\tEb\tw:OSZAPC u:OSZAPC\tdiv\tB\t-\t-\n"
  "one\t9D\t-\tPOPF\t-\tw:*\tpopf\tV\t-\t-\n"
  "two\tD9\t/5\tFLDCW\tMw\t-\tfldcw\tXC\t-\tkMemoryOnly\n"
  "one\t01\t-\tADD\tEv,Gv\tw:OSZAPC\tadd\tVR\t-\tkLockable\n")
generate(good "${good}")
if(NOT rc EQUAL 0)
  fail("a well-formed map was rejected: ${err}")
else()
  file(READ "${out_dir}/one.inc" one)
  file(READ "${out_dir}/two.inc" two)
  # Jcc: 70-7F in the order of the SDM's Jcc table (Vol. 2, "Jcc"), each row from line 3.
  set(opcode 0x70)
  foreach(condition O NO B AE E NE BE A S NS P NP L GE LE G)
    math(EXPR code "${opcode}" OUTPUT_FORMAT HEXADECIMAL)
    string(TOUPPER "${code}" code)
    string(REPLACE "0X" "0x" code "${code}")
    set(row "#line 3 \"${map}\"\n{${code}, -1, \"J${condition}\", \"Jb\", &jcc<u16>, &jcc<u32>, kCall, -1, 3, 0x0, 0x0},\n")
    string(FIND "${one}" "${row}" at)
    if(at LESS 0)
      fail("no row for J${condition} at ${code} in:\n${one}")
    endif()
    math(EXPR opcode "${opcode} + 1")
  endforeach()
  foreach(row
      "{0x1C8, -1, \"BSWAP\", \"Zv\", &bswap<u16>, &bswap<u32>, 0, -1, 4, 0x0, 0x0},"
      "{0x1CF, -1, \"BSWAP\", \"Zv\", &bswap<u16>, &bswap<u32>, 0, -1, 4, 0x0, 0x0},"
      "{0x80, 7, \"CMP\", \"Eb,Ib\", &cmp<u8>, &cmp<u8>, 0, -1, 5, 0x8d5, 0x0},"
      # VR: the register-only form and the general one of one body (cpu/operands.h)
      "{0x1, -1, \"ADD\", \"Ev,Gv\", &x86lab::resolved_or_general<&add<u16, true>, &add<u16, false>>, &x86lab::resolved_or_general<&add<u32, true>, &add<u32, false>>, kLockable, -1, 13, 0x8d5, 0x0},"
      # u: within w: (SDM "DIV": every status flag undefined); w:* is every implemented EFLAGS bit
      "{0xF6, 6, \"DIV\", \"Eb\", &div<u8>, &div<u8>, 0, -1, 10, 0x8d5, 0x8d5},"
      "{0x9D, -1, \"POPF\", \"\", &popf<u16>, &popf<u32>, 0, -1, 11, 0x3f7fd5, 0x0},"
      "{0x118, 4, \"NOP\", \"Ev\", &nop, &nop, kLockable | kMemoryOnly, -1, 6, 0x0, 0x0},"
      # a checked attribute wraps both executors in x86lab::checked (cpu/privilege.h)
      "{0x101, 2, \"LGDT\", \"Ms\", &x86lab::checked<(kMemoryOnly | kPrivileged), &lgdt<u16>>, &x86lab::checked<(kMemoryOnly | kPrivileged), &lgdt<u32>>, kMemoryOnly | kPrivileged, -1, 7, 0x0, 0x0},")
    string(FIND "${one}" "${row}" at)
    if(at LESS 0)
      fail("missing row ${row} in:\n${one}")
    endif()
  endforeach()
  string(REGEX MATCHALL "\n{" rows "${one}")
  list(LENGTH rows count)
  if(NOT count EQUAL 30)  # 16 Jcc + 8 BSWAP + CMP + NOP + LGDT + DIV + POPF + ADD
    fail("one.inc has ${count} rows, not 30")
  endif()
  # D9 E0 is ModRM 11 100 000: ModRM.reg 4, ModRM.rm 0 (SDM "FCHS").
  set(x87 "&x86lab::x87::x87")
  set(keep "x86lab::x87::Pointers::Keep")
  foreach(row
      "{0xD9, 4, \"FCHS\", \"\", ${x87}<sign_operation<true>>, ${x87}<sign_operation<true>>, kRegisterOnly, 0, 8, 0x0, 0x0},"
      "{0xDD, 6, \"FNSAVE\", \"M\", ${x87}<fnsave<false>, x86lab::x87::Waits::No, ${keep}>, ${x87}<fnsave<true>, x86lab::x87::Waits::No, ${keep}>, kMemoryOnly, -1, 9, 0x0, 0x0},"
      "{0xD9, 5, \"FLDCW\", \"Mw\", ${x87}<fldcw, x86lab::x87::Waits::Yes, ${keep}>, ${x87}<fldcw, x86lab::x87::Waits::Yes, ${keep}>, kMemoryOnly, -1, 12, 0x0, 0x0},")
    string(FIND "${two}" "${row}" at)
    if(at LESS 0)
      fail("missing row ${row} in:\n${two}")
    endif()
  endforeach()
endif()

# --- lines it rejects --------------------------------------------------------------
# Each case: a name, the offending line (as line 2, after a comment), the message expected.
set(row_tail "\tMOV\tEb,Gb\t-\tmov\tB\t-\t-")
set(cases
  columns      "one\t88\t-\tMOV\tEb,Gb\tmov\tB\t-\t-"             "9 tab-separated columns where 10 belong"
  family       "three\t88\t-${row_tail}"                             "family 'three' is none of those"
  lowercase    "one\t8a\t-${row_tail}"                               "opcode '8a' is not one of"
  prefix       "one\t66 88\t-${row_tail}"                            "opcode '66 88' is not one of"
  modrm_memory "one\tD9 20\t-${row_tail}"                            "opcode 'D9 20' is not one of"
  register_low "one\t41+r\t-${row_tail}"                             "opcode '41+r': the low bits that +r fills must be 0"
  ext_range    "one\t88\t/8${row_tail}"                              "ext '/8' is neither '-' nor /0 to /7"
  ext_with_r   "one\t40+r\t/1${row_tail}"                            "ext '/1' with opcode '40+r': a +r, +cc or ModRM-byte opcode takes ext '-'"
  cc_mnemonic  "one\t70+cc\t-\tJ\tJb\t-\tjcc\tV\t-\t-"                  "mnemonic 'J' of a +cc opcode must end in 'cc'"
  mnemonic     "one\t88\t-\tmov\tEb,Gb\t-\tmov\tB\t-\t-"                "mnemonic 'mov' is not upper-case"
  operands     "one\t88\t-\tMOV\tEb, Gb\t-\tmov\tB\t-\t-"               "operands 'Eb, Gb' are not up to three"
  executor     "one\t88\t-\tMOV\tEb,Gb\t-\tMov\tB\t-\t-"                "executor 'Mov' is not a C++ name"
  kind         "one\t88\t-\tMOV\tEb,Gb\t-\tmov\tW\t-\t-"                "kind 'W' is none of"
  args         "one\t88\t-\tMOV\tEb,Gb\t-\tmov\tB\tu8)\t-"              "args 'u8)' are not C++ template arguments"
  attributes   "one\t88\t-\tMOV\tEb,Gb\t-\tmov\tB\t-\tkLockable,kMemoryOnly" "attributes 'kLockable,kMemoryOnly' are not"
  indented     "\tone\t88\t-${row_tail}"                             "a line starts with its family"
  flags_letter "one\t88\t-\tMOV\tEb,Gb\tw:OSZAPX\tmov\tB\t-\t-"     "flags 'w:OSZAPX' are not '-'"
  flags_order  "one\t88\t-\tMOV\tEb,Gb\tu:A\tmov\tB\t-\t-"          "flags 'u:A' are not '-'"
  flags_subset "one\t88\t-\tMOV\tEb,Gb\tw:C u:A\tmov\tB\t-\t-"      "flags 'w:C u:A': a flag in u: is not in w:"
  checked_x87  "one\tD9\t/0\tFLD\tMd\t-\tfld\tX\t-\tkPrivileged"        "attributes 'kPrivileged': a row of kind X takes none of")
list(LENGTH cases length)
math(EXPR last "${length} - 1")
foreach(i RANGE 0 ${last} 3)
  math(EXPR j "${i} + 1")
  math(EXPR k "${i} + 2")
  list(GET cases ${i} case)
  list(GET cases ${j} line)
  list(GET cases ${k} expected)
  generate(${case} "# rows\n${line}\ntwo\t90\t-\tNOP\t-\t-\tnop\tN\t-\t-\n")
  string(FIND "${err}" "${map}:2: ${expected}" at)
  string(REGEX MATCHALL "map\\.tsv:" mentions "${err}")
  list(LENGTH mentions mentions)
  if(rc EQUAL 0 OR at LESS 0 OR NOT mentions EQUAL 1)
    fail("case ${case}: expected one message '${map}:2: ${expected}...', exit status ${rc}, got:\n${err}")
  endif()
  if(EXISTS "${out_dir}")
    fail("case ${case}: a rejected map wrote ${out_dir}")
  endif()
endforeach()

# A declared family without rows is an error too (a misspelt family name, say).
generate(empty_family "one\t90\t-\tNOP\t-\t-\tnop\tN\t-\t-\n")
string(FIND "${err}" "${map}: no rows for family 'two'" at)
if(rc EQUAL 0 OR at LESS 0)
  fail("a family without rows passed: ${err}")
endif()
