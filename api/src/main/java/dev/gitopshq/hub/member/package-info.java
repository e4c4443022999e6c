/**
 * People and machines: members with roles, their API tokens, and service accounts with scoped
 * tokens.
 */
package dev.gitopshq.hub.member;
