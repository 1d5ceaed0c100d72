/*
 * libze_tracing_layer.so.1: Intel's oneAPI PJRT plugin links the Level
 * Zero tracing layer but calls none of its functions, so ze_sim's stands in
 * empty. (ISO C wants a declaration in every translation unit.)
 */
typedef int ze_sim_tracing_layer_is_empty;
