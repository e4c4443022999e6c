/** The Helm chart registry: upload, list and delete chart versions, bounded in size and render. */
package dev.gitopshq.hub.delivery.chart;
