/**
 * Delivery generations: the activities that plan a project's configuration into units, render them
 * ({@code render}) and commit the result ({@code git}), with the generations' store. It depends on
 * {@code delivery} (the object model) and {@code render}; neither depends on it.
 */
package dev.gitopshq.activities.generation;
