/**
 * Delivery generation in the hub: the activities' wiring, the catch-up sweep that makes sure every
 * configuration revision gets generated, and the generations API.
 */
package dev.gitopshq.hub.generation;
