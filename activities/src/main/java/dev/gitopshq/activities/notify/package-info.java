/** Outgoing notifications: JSON events to a configured webhook, signed with HMAC-SHA256. */
package dev.gitopshq.activities.notify;
