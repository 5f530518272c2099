/* SPDX-License-Identifier: MIT */
/* The mount table's reading (mountread.c), its strings and index
 * (mounts.c), and what a mount shows again (layers.c), between them. */
#ifndef SBX_LAYERS_H
#define SBX_LAYERS_H

#include "lib/compiler.h"

/* mountinfo's \ooo escapes undone, in place. */
void sbx__mounts_unescape(char *s);
/* The next field cut out of *p at sep, in place; NULL at the end. */
char *sbx__mounts_field(char **p, char sep);
/* The layers a mount of type from source (its superblock's options:
 * super) shows, noted as its layers, still to be placed (layers.c). */
int sbx__mounts_note_stacking(struct mounts *m, size_t *cap, struct mount *mt, const char *type,
                              const char *source, char *super);
/* Each mount's layers placed in its own filesystem, or said unknown. */
int sbx__mounts_place_layers(struct mounts *m);
/* m->v sorted by id, and m->points made: 0, or ENOMEM (mounts.c). */
int sbx__mounts_index(struct mounts *m);

#endif
