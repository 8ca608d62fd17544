/* The built-in HPCC program, tested as shipped. */
#include "../../programs/hpcc.p4"
