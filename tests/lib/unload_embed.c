/* A shared object with the static libpjrt_dlpack linked in whole and
 * nothing of its own: what a user's plugin or extension that embeds the
 * library looks like to dlopen (test_unload.c loads it and calls the
 * library's functions it exports). */
int unload_embed_marker;
