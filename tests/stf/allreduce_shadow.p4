/* allreduce.p4 with K = 4 lanes and 8 register cells (4 slots x 2 sets), see allreduce_shadow.stf. */
#define AR_K 4
#define AR_CELLS 8
#include "../../programs/allreduce.p4"
