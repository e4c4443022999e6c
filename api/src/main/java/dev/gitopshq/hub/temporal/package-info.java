/** Temporal client and worker wiring: one worker per replica on the hub task queue. */
package dev.gitopshq.hub.temporal;
