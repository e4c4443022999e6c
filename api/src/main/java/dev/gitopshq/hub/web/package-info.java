/**
 * How the REST API answers mistakes: one JSON error shape, 400 naming each bad field and why, 404,
 * 409 and 403 with a readable message. Nothing about a token ever appears in an error.
 */
package dev.gitopshq.hub.web;
