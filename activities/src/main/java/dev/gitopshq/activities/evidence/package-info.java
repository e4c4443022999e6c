/** The hub's evidence signing keys as stored (the private key only sealed). */
package dev.gitopshq.activities.evidence;
