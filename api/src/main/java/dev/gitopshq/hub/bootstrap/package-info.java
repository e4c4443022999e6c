/** First start: the organization and its bootstrap owner, so nothing is ever anonymous. */
package dev.gitopshq.hub.bootstrap;
