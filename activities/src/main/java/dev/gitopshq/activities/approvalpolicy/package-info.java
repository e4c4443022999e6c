/**
 * Reusable approval policies, store side: the policy objects of an organization, their attachments
 * to clusters (by cluster name, by label selector) and the one place that decides which policy is
 * in force for a cluster ({@link dev.gitopshq.activities.approvalpolicy.ApprovalPolicyResolver}),
 * which command governance, the OPA input and the cluster view all ask.
 */
package dev.gitopshq.activities.approvalpolicy;
