-- Commands and deployments are both governed subjects (a policy decision, then approvers or
-- break-glass) and now share one store interface, so their columns share one set of names:
-- status_detail, policy_name, decision_outcome and decision_reasons, as commands already had.
alter table deployments rename column detail to status_detail;
alter table deployments rename column policy to policy_name;
alter table deployments rename column outcome to decision_outcome;
alter table deployments add column decision_reasons text[];
