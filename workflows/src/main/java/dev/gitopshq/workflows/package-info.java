/**
 * Temporal workflow and activity interfaces, deterministic workflow implementations and the small
 * records that travel through Temporal. One package per use case.
 *
 * <p>Nothing here performs I/O, reads the wall clock or generates randomness outside the {@code
 * Workflow} API; the module's build refuses dependencies on Spring, JDBC, JGit, Fabric8 and HTTP
 * clients, and {@code WorkflowBoundaryTest} checks the imports and calls.
 */
package dev.gitopshq.workflows;
