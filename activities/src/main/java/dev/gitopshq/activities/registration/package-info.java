/**
 * Registration's store side: issuing registration tokens, consuming them atomically in exchange for
 * an agent token, and the activities the registration workflow calls.
 */
package dev.gitopshq.activities.registration;
