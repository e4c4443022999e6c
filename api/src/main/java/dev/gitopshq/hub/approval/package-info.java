/**
 * The unified approvals inbox: {@code /api/v2/approvals}. Approve and reject signal the approval
 * workflow; the REST layer refuses self-approval and ineligible approvers with 403, and the
 * workflow itself would not count such a vote either.
 */
package dev.gitopshq.hub.approval;
