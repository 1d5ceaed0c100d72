# Turns a facts file written by record_facts.py into a C table of checks.
#
#   cmake -DIN=facts.abi -DOUT=table.inc -DNAME=prefix -P gen_abi_checks.cmake
#
# Every fact becomes one row of `static const struct abi_fact NAME_facts[]`
# whose `actual` member is computed by the compiler from our headers and whose
# `expected` member is the recorded value. NAME_fact_count is the number of
# rows and NAME_expected_slots the recorded PJRT_Api slot count (0 if none).

if(NOT IN OR NOT OUT OR NOT NAME)
    message(FATAL_ERROR "usage: cmake -DIN=... -DOUT=... -DNAME=... -P gen_abi_checks.cmake")
endif()

file(STRINGS "${IN}" lines)
get_filename_component(src "${IN}" NAME)
set(rows "")
set(count 0)
set(slots 0)
set(lineno 0)
foreach(line IN LISTS lines)
    math(EXPR lineno "${lineno} + 1")
    if(line MATCHES "^#" OR line STREQUAL "")
        continue()
    endif()
    if(line MATCHES "^size ([A-Za-z_0-9]+) ([0-9]+) ([0-9]+)$")
        set(t "${CMAKE_MATCH_1}")
        string(APPEND rows
            "    {${lineno}, ABI_SIZE, \"${t}\", NULL, (long long)sizeof(${t}), ${CMAKE_MATCH_2}},\n"
            "    {${lineno}, ABI_ALIGN, \"${t}\", NULL, (long long)_Alignof(${t}), ${CMAKE_MATCH_3}},\n")
        math(EXPR count "${count} + 2")
    elseif(line MATCHES "^field ([A-Za-z_0-9]+) ([A-Za-z_0-9]+) ([0-9]+) ([0-9]+)$")
        set(t "${CMAKE_MATCH_1}")
        set(f "${CMAKE_MATCH_2}")
        string(APPEND rows
            "    {${lineno}, ABI_OFFSET, \"${t}\", \"${f}\", (long long)offsetof(${t}, ${f}), ${CMAKE_MATCH_3}},\n"
            "    {${lineno}, ABI_FIELD_SIZE, \"${t}\", \"${f}\", (long long)sizeof(((${t} *)0)->${f}), ${CMAKE_MATCH_4}},\n")
        math(EXPR count "${count} + 2")
    elseif(line MATCHES "^value ([A-Za-z_0-9]+) (-?[0-9]+)$")
        string(APPEND rows
            "    {${lineno}, ABI_VALUE, \"${CMAKE_MATCH_1}\", NULL, (long long)(${CMAKE_MATCH_1}), ${CMAKE_MATCH_2}LL},\n")
        math(EXPR count "${count} + 1")
    elseif(line MATCHES "^slots PJRT_Api ([0-9]+)$")
        set(slots "${CMAKE_MATCH_1}")
    else()
        message(FATAL_ERROR "${IN}:${lineno}: cannot read this line: ${line}")
    endif()
endforeach()

if(count EQUAL 0)
    message(FATAL_ERROR "${IN}: no facts found")
endif()

file(WRITE "${OUT}.tmp"
    "/* Generated from tests/abi/${src} by gen_abi_checks.cmake; do not edit. */\n"
    "static const char ${NAME}_source[] = \"${src}\";\n"
    "static const struct abi_fact ${NAME}_facts[] = {\n${rows}};\n"
    "enum { ${NAME}_fact_count = ${count}, ${NAME}_expected_slots = ${slots} };\n")
# Only touch the output when it changed, so the test is not rebuilt needlessly.
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
