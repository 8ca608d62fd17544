/* The built-in ECN router, tested as shipped. */
#include "../../programs/ecn.p4"
