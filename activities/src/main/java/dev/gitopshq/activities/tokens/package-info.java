/**
 * Token generation and hashing. Plaintext tokens exist only in memory on their way to the caller.
 */
package dev.gitopshq.activities.tokens;
