/** The hosted Git repositories: the store, read-only smart HTTP and deploy tokens. */
package dev.gitopshq.hub.git;
