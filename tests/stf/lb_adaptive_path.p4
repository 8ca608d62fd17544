/* The built-in adaptive router (programs/adaptive.p4) in its path mode (CONGA), tested as shipped. */
#include "../../programs/adaptive.p4"
