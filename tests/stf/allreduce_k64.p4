/* programs/allreduce.p4 with K = 64 lanes per packet. */
#define AR_K 64
#include "../../programs/allreduce.p4"
