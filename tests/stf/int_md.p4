/* The built-in INT program, tested as shipped. */
#include "../../programs/int.p4"
