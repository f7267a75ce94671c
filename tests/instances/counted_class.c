/* The hand-written class the consumer test also uses. */
#include "../consumer/counted_class.c"
