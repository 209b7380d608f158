# Writes OUTPUT: a header with each trace/profiles/*.cost file as a raw string, so
# the x86lab binary carries its built-in profiles.
file(GLOB profiles ${PROFILE_DIR}/*.cost)
list(SORT profiles)
set(content "// Generated from trace/profiles/*.cost by trace/embed_profiles.cmake; do not edit.\n#pragma once\n\nnamespace x86lab {\nstruct BuiltinCostModel { const char* name; const char* text; };\ninline constexpr BuiltinCostModel kBuiltinCostModels[] = {\n")
foreach(profile ${profiles})
  get_filename_component(name ${profile} NAME_WE)
  file(READ ${profile} text)
  string(APPEND content "  {\"${name}\", R\"x86lab_profile(${text})x86lab_profile\"},\n")
endforeach()
string(APPEND content "};\n}  // namespace x86lab\n")
file(WRITE ${OUTPUT}.tmp "${content}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUTPUT}.tmp ${OUTPUT})
