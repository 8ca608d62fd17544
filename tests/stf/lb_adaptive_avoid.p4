/* The built-in adaptive router (programs/adaptive.p4), path mode with avoidance, tested as shipped. */
#include "../../programs/adaptive.p4"
