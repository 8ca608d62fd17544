/* The built-in flowlet-switching router (programs/flowlet.p4), tested as shipped. */
#include "../../programs/flowlet.p4"
