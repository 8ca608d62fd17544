/* programs/allreduce.p4 unchanged (K = 32). */
#include "../../programs/allreduce.p4"
