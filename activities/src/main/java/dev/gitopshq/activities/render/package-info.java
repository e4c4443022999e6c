/**
 * Rendering: planning a project snapshot into units (variables and values merged), Helm charts
 * rendered in render worker processes (RenderWorkers, tools/render-worker), manifest bundles with
 * JSON merge patch overlays, Kustomize bindings written as kustomization files, and the checks on
 * uploaded chart archives and user paths.
 */
package dev.gitopshq.activities.render;
