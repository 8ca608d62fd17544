/* The built-in adaptive (DRILL-style) router (programs/adaptive.p4), tested as shipped. */
#include "../../programs/adaptive.p4"
