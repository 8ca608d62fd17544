/* The built-in ECMP router (programs/ecmp.p4), tested as shipped. */
#include "../../programs/ecmp.p4"
