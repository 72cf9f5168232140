/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <json-c/json.h>

#include "probe/trial.h"

/* nodeswap trial's output, text and JSON from the one TrialRecord (nodeswap(8) TRIAL). The JSON is
 * also the saved record, which probe/trial.c's trial_record_parse() reads back. */

/* The record as JSON (version 1; null for every TRIAL_MISSING figure). */
int trial_record_to_json(const TrialRecord *t, json_object **ret);

/* Before the runs: what will run, the seed, the swap runs refused and why, and how the trial
 * competes with the node's pods. */
void trial_print_intro(FILE *f, const TrialRecord *t, size_t n_planned);
/* One line per finished run (progress, on stderr). */
void trial_print_run(FILE *f, const TrialRun *r, size_t n_planned);
/* The table, its footnotes for missing figures and the verdict. */
void trial_print(FILE *f, const TrialRecord *t);

/* --density: the intro before the points, one progress line a point (stderr), and (trial_print()
 * calls it for a density record) the points' table and the verdict. */
void trial_print_density_intro(FILE *f, const TrialRecord *t);
void trial_print_density_point(FILE *f, const TrialDensityPoint *p);
void trial_print_density(FILE *f, const TrialRecord *t);

/* --compare: the records of the same command side by side (command NULL: every command, one
 * table each), one column per trial, rows limit × swap. */
void trial_compare_print(FILE *f, const TrialRecord *t, size_t n, char *const *command);
int trial_compare_to_json(const TrialRecord *t, size_t n, char *const *command, json_object **ret);

/* --compare of density records (t: density records only), per command one column per trial (its
 * backend): the node, the replica, the densities and their ratio, the ceiling, the scheduler's
 * view, then a row per (replicas, swap) point with its costs. The JSON adds "density_trials" and
 * "density_commands" (nodeswap(8) TRIAL) to o, the object trial_compare_to_json() made. */
void trial_density_compare_print(FILE *f, const TrialRecord *t, size_t n, char *const *command);
int trial_density_compare_to_json(const TrialRecord *t, size_t n, char *const *command, json_object *o);

/* What a density trial's figures leave out (text and JSON, nodeswap(8)): nodeswap measures no
 * pod's overhead. */
#define TRIAL_POD_OVERHEAD_LEFT_OUT                                                                      \
        "the replicas are transient units, not pods: the figures leave out what a pod adds on a node "  \
        "(its sandbox's pause container and its runtime's shim), which nodeswap does not measure"

/* --svg: a self-contained SVG chart (report/svg.h) of a trial (wall time and swap traffic against
 * the limit, without and with swap; a density trial: the slowest settle time and the node's stall
 * against the replicas, each point marked held or with what gave out) and of --compare (one panel
 * a trial of the command, NULL: of the latest trial's, side by side). NULL on ENOMEM. *ret_width,
 * *ret_height: the declared size. */
char *trial_svg(const TrialRecord *t, unsigned *ret_width, unsigned *ret_height);
char *trial_compare_svg(const TrialRecord *t, size_t n, char *const *command, unsigned *ret_width,
                        unsigned *ret_height);
/* --compare --svg of density records (t: density records only): one panel a density trial of the
 * command (NULL: of the latest one's), side by side, each titled with its backend and densities:
 * the slowest settle time against the replicas, without and with swap. */
char *trial_density_compare_svg(const TrialRecord *t, size_t n, char *const *command, unsigned *ret_width,
                                unsigned *ret_height);
