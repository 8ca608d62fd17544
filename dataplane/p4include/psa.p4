/* psa.p4 -- `#include <psa.p4>` gets the Portable Switch Architecture as BMv2's psa_switch
 * runs it (bmv2/psa.p4). */
#include <bmv2/psa.p4>
