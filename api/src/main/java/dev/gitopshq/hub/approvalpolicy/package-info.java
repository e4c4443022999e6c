/**
 * Reusable approval policies over REST: {@code /api/v2/approval-policies} (list, create, read,
 * replace, delete), the validation of their rules and attachments, the conflict check that refuses
 * two equally specific attachments, their audit entries, and the "policy in force" shown in the
 * cluster view. The rule of precedence lives in the activities module ({@code Precedence}), so the
 * command workflow's OPA input and this API resolve the same way.
 */
package dev.gitopshq.hub.approvalpolicy;
