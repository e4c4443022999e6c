/** Token rotation, store side, and the delivery activity that runs where the agent's stream is. */
package dev.gitopshq.activities.rotation;
