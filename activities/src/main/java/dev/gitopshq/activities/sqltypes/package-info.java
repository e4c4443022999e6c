/**
 * The MyBatis type handlers that a mapper names on one parameter ({@code
 * typeHandler=dev.gitopshq.activities.sqltypes....}), shared by the mappers of several features.
 * They live outside {@code store} on purpose: MyBatis registers every handler of that package (the
 * hub's {@code type-handlers-package}) as the default for its Java type, and {@link
 * dev.gitopshq.activities.sqltypes.UuidArrayTypeHandler} would then replace the {@code UUID} or
 * {@code List} handler there.
 */
package dev.gitopshq.activities.sqltypes;
