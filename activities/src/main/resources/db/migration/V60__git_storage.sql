-- The hosted repositories in PostgreSQL (GITOPSHQ_GIT_STORAGE=postgres, activities/.../git/pg):
-- JGit's DFS storage, with every pack file cut into chunks and every ref a row, so that hub
-- replicas share the repositories without a shared file system. Unused with the file storage.

-- One row per project repository. pack_version grows each time its pack list changes, so a
-- replica that holds an older list knows to read it again. maintained_at: a replica is compacting
-- the packs since then (others leave it alone for an hour).
create table git_repositories (
    org_id        uuid not null,
    project_id    uuid not null,
    pack_version  bigint not null default 0,
    maintained_at timestamptz,
    created_at    timestamptz not null default now(),
    primary key (org_id, project_id)
);

-- Refs: a branch holds an object id, a symbolic ref (HEAD) the name of another ref. A ref moves
-- by one conditional update (compare-and-set on the old value).
create table git_refs (
    org_id     uuid not null,
    project_id uuid not null,
    name       text not null,
    object_id  text,
    target     text,
    primary key (org_id, project_id, name),
    foreign key (org_id, project_id) references git_repositories on delete cascade,
    check ((object_id is null) <> (target is null))
);

-- Packs. A pack is written ('writing'), then listed in one transaction with the packs it
-- replaces ('current'; the replaced ones 'replaced'). Replaced packs stay readable for an hour,
-- for the readers that still hold the older list; maintenance deletes them after that, and packs
-- left 'writing' by a writer that died after a day.
create table git_packs (
    org_id       uuid not null,
    project_id   uuid not null,
    pack_name    text not null,
    source       text not null,
    state        text not null check (state in ('writing', 'current', 'replaced')),
    object_count bigint not null default 0,
    created_at   timestamptz not null default now(),
    replaced_at  timestamptz,
    primary key (org_id, project_id, pack_name),
    foreign key (org_id, project_id) references git_repositories on delete cascade
);

create index git_packs_current on git_packs (org_id, project_id) where state = 'current';

-- The files of a pack (pack, idx, bitmap...), with their size once completely written.
create table git_pack_files (
    org_id     uuid not null,
    project_id uuid not null,
    pack_name  text not null,
    ext        text not null,
    size       bigint not null,
    primary key (org_id, project_id, pack_name, ext),
    foreign key (org_id, project_id, pack_name) references git_packs on delete cascade
);

-- A file's bytes in chunks of 64 KiB (the last one shorter), numbered from 0. Packs never change
-- once written, so any replica may cache what it read.
create table git_pack_chunks (
    org_id     uuid not null,
    project_id uuid not null,
    pack_name  text not null,
    ext        text not null,
    chunk      integer not null,
    data       bytea not null,
    primary key (org_id, project_id, pack_name, ext, chunk),
    foreign key (org_id, project_id, pack_name) references git_packs on delete cascade
);
alter table git_pack_chunks alter column data set storage external;
