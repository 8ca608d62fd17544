/* The built-in adaptive router (programs/adaptive.p4) with symmetric components, tested as shipped. */
#include "../../programs/adaptive.p4"
