/** Encryption of secrets the hub must be able to read back (e.g. webhook secrets). */
package dev.gitopshq.activities.crypto;
