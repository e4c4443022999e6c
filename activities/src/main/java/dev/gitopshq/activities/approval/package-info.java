/** The approvals inbox, store side, and the approval workflow's activities. */
package dev.gitopshq.activities.approval;
