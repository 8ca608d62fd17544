/* The built-in packet-spraying router (programs/spray.p4), tested as shipped. */
#include "../../programs/spray.p4"
